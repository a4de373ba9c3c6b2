"""`platformctl events deliveries redeliver`, `platformctl config get|set` and `platformctl completion`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from platform_api.ctl import complete, config, output
from platform_api.ctl.common import OK, USAGE, CtlError, Ctx, command, group


def redeliver(ctx: Ctx) -> int:
    result = ctx.client().events.redeliver_event(ctx.args.subscription, ctx.args.event_id)
    if ctx.output in ("json", "yaml"):
        output.emit(result, ctx.output, ())
    else:
        print(f"event {ctx.args.event_id} queued again for subscription {ctx.args.subscription}")
    return OK


def register_redeliver(deliveries: Any) -> None:
    p = command(deliveries, "redeliver", "deliver an event to a subscription again",
                ["platformctl events deliveries redeliver <subscription uid> <event id>"], redeliver)  # fmt: skip
    p.add_argument("subscription", help="the subscription's uid")
    p.add_argument("event_id", help="the event's id (EVENT_ID in `events deliveries ls -o wide`)")


def config_get(ctx: Ctx) -> int:
    values = config.load()
    if ctx.args.key:
        if ctx.args.key not in config.KEYS:
            raise CtlError(f"unknown setting {ctx.args.key!r}; settings: {', '.join(config.KEYS)}", USAGE)
        print(values.get(ctx.args.key, ""))
        return OK
    if ctx.output in ("json", "yaml"):
        output.emit(values, ctx.output, ())
    else:
        for key in config.KEYS:
            print(f"{key + ':':11}{values.get(key, '')}")
    return OK


def config_set(ctx: Ctx) -> int:
    key, value = ctx.args.key, ctx.args.value
    if key not in config.KEYS:
        raise CtlError(f"unknown setting {key!r}; settings: {', '.join(config.KEYS)}", USAGE)
    if key == "transport" and value not in ("grpc", "http", ""):
        raise CtlError("transport must be grpc or http", USAGE)
    if key == "output" and value not in (*output.FORMATS, ""):
        raise CtlError(f"output must be one of {', '.join(output.FORMATS)}", USAGE)
    if key == "server" and value and not value.startswith(("http://", "https://")):
        raise CtlError("server must be an http:// or https:// URL", USAGE)
    values = config.load()
    values[key] = value
    config.save(values)
    return OK


def register_config(sub: Any) -> None:
    g = group(sub, "config", f"settings in {config.path()}",
              ["platformctl config set server https://api.example.com", "platformctl config set org my-org",
               "platformctl config get"])  # fmt: skip
    p = command(g, "get", "show the settings, or one", ["platformctl config get", "platformctl config get org"],
                config_get)  # fmt: skip
    p.add_argument("key", nargs="?", help=f"one of: {', '.join(config.KEYS)}")
    keys = "\n".join(f"  {k}: {v}" for k, v in config.KEYS.items())
    p = command(g, "set", "change a setting (an empty value removes it)",
                ["platformctl config set server http://localhost:8080", "platformctl config set org ''"],
                config_set)  # fmt: skip
    p.description = f"change a setting (an empty value removes it)\n\nsettings:\n{keys}"
    p.add_argument("key", help=f"one of: {', '.join(config.KEYS)}")
    p.add_argument("value")


# --- shell completion -------------------------------------------------------------------------------------------


def _tree(parser: argparse.ArgumentParser, path: str, out: dict[str, list[str]],
          values: dict[str, list[str]]) -> None:  # fmt: skip
    """The words after each command path (subcommands, flags, a positional's choices), and the values of the
    flags that take a fixed set (`-o json`)."""
    words: list[str] = []
    for action in parser._actions:
        words.extend(o for o in action.option_strings if o.startswith("--") or len(action.option_strings) == 1)
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                if name.startswith("__"):
                    continue  # hidden: complete.py's helper of the scripts below
                words.append(name)
                _tree(child, f"{path} {name}".strip(), out, values)
        elif action.choices is not None and action.option_strings:
            for o in action.option_strings:
                values.setdefault(o, [str(c) for c in action.choices])
        elif action.choices is not None:
            words.extend(str(c) for c in action.choices)  # `completion bash|zsh|fish`
    out[path] = sorted(set(words))


BASH = """# platformctl completion for bash: eval "$(platformctl completion bash)"
_platformctl() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" path="" w i
  case "$prev" in
%s
  esac
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case " $(_platformctl_words "${path# }") " in *" $w "*) path="$path $w" ;; esac
  done
  local kind words
  kind="$(_platformctl_kind "${path# }" "$prev" "$cur")"
  if [[ -n "$kind" ]]; then  # names of groups or repos, from the server (silent, bounded: ctl/complete.py)
    COMPREPLY=($(compgen -W "$(platformctl __complete "$kind" "$cur" 2>/dev/null)" -- "$cur"))
    return
  fi
  words="$(_platformctl_words "${path# }" | tr ' ' '\n')"
  if [[ "$cur" == -* ]]; then words="$(grep -- '^-' <<<"$words")"; else words="$(grep -v -- '^-' <<<"$words")"; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
_platformctl_kind() {
  case "$2" in
%s
  esac
  [[ "$3" == -* ]] && return
  case "$1" in
%s
  esac
}
_platformctl_words() {
  case "$1" in
%s
  esac
}
complete -F _platformctl platformctl
"""
ZSH = """#compdef platformctl
# platformctl completion for zsh: eval "$(platformctl completion zsh)" (uses zsh's bash completion layer)
autoload -U +X bashcompinit && bashcompinit
"""


FISH = """# platformctl completion for fish: platformctl completion fish | source   (or save it as
# ~/.config/fish/completions/platformctl.fish)
function __platformctl_words
    switch "$argv"
%s
    end
end
function __platformctl_kind
    switch "$argv[2]"
%s
    end
    string match -q -- "-*" "$argv[3]"; and return
    switch "$argv[1]"
%s
    end
end
function __platformctl_complete
    set -l tokens (commandline -opc)
    switch "$tokens[-1]"
%s
    end
    set -l path ""
    for w in $tokens[2..-1]
        string match -q -- "-*" $w; and continue
        if contains -- $w (string split " " -- (__platformctl_words (string trim -- $path)))
            set path "$path $w"
        end
    end
    set -l kind (__platformctl_kind (string trim -- $path) "$tokens[-1]" (commandline -ct))
    if test -n "$kind"
        command -q platformctl; and platformctl __complete $kind (commandline -ct) 2>/dev/null
        return
    end
    set -l words (string split " " -- (__platformctl_words (string trim -- $path)))
    if string match -q -- "-*" (commandline -ct)
        string match -- "-*" $words
    else
        string match -v -- "-*" $words
    end
end
complete -c platformctl -f -a "(__platformctl_complete)"
"""


def _bash_kind(kinds: dict[str, str]) -> str:
    """The kind of names a flag takes, by the command path it follows (`""`: any other path)."""
    cases = " ".join(f'"{prefix}"*) echo {kind} ;;' if prefix else f"*) echo {kind} ;;" for prefix, kind in
                     kinds.items())  # fmt: skip
    return f'case "$1" in {cases} esac'


def _fish_kind(kinds: dict[str, str]) -> str:
    cases = "; ".join(f'case "{prefix}*"; echo {kind}' if prefix else f"case '*'; echo {kind}" for prefix, kind
                      in kinds.items())  # fmt: skip
    return f'switch "$argv[1]"; {cases}; end'


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    tree: dict[str, list[str]] = {}
    values: dict[str, list[str]] = {}
    _tree(parser, "", tree, values)
    by_values: dict[str, list[str]] = {}  # the flags taking each set of values: `-o|--output`
    for flag, choices in values.items():
        by_values.setdefault(" ".join(choices), []).append(flag)
    if shell == "fish":
        cases = "\n".join(f'        case "{path}"\n            echo "{" ".join(words)}"' for path, words in
                          sorted(tree.items()))  # fmt: skip
        flags = "\n".join(f"        case {' '.join(fs)}\n            string split ' ' -- '{v}'; return"
                          for v, fs in by_values.items())  # fmt: skip
        kind_flags = "\n".join(f"        case {' '.join(fs)}\n            {_fish_kind(kinds)}; return"
                               for fs, kinds in complete.FLAGS)  # fmt: skip
        kind_paths = "\n".join(f'        case "{path}"\n            echo {kind}' for path, kind in
                               complete.positional())  # fmt: skip
        return FISH % (cases, kind_flags, kind_paths, flags)
    flags = "\n".join(f'    {"|".join(fs)}) COMPREPLY=($(compgen -W "{v}" -- "$cur")); return ;;'
                      for v, fs in by_values.items())  # fmt: skip
    cases = "\n".join(f'    "{path}") echo "{" ".join(words)}" ;;' for path, words in sorted(tree.items()))
    kind_flags = "\n".join(f"    {'|'.join(fs)}) {_bash_kind(kinds)}; return ;;" for fs, kinds in complete.FLAGS)
    kind_paths = "\n".join(f'    "{path}") echo {kind} ;;' for path, kind in complete.positional())
    script = BASH % (flags, kind_flags, kind_paths, cases)
    return ZSH + script if shell == "zsh" else script


def register_completion(sub: Any, root: argparse.ArgumentParser) -> None:
    def run(ctx: Ctx) -> int:
        sys.stdout.write(completion_script(root, ctx.args.shell))
        return OK

    p = command(sub, "completion", "print the shell completion script",
                ['eval "$(platformctl completion bash)"   # in ~/.bashrc',
                 'eval "$(platformctl completion zsh)"    # in ~/.zshrc',
                 "platformctl completion fish > ~/.config/fish/completions/platformctl.fish"], run)  # fmt: skip
    p.add_argument("shell", choices=["bash", "zsh", "fish"])
