"""The resources of `platformctl iam|registry|events|advisories`: columns, flags and examples, one spec each."""

from __future__ import annotations

from platform_api.ctl.resources import Flag, Spec, crud

DESCRIPTION = Flag("--description", "description", "a description")
CREATED = ("CREATED", "createTime")

IAM = [
    Spec("iam", "groups", "group", "iam", "group", crud("group", "groups"),
         columns=(("NAME", "name"), ("UID", "uid"), ("DESCRIPTION", "description")), wide=(CREATED,),
         flags=(DESCRIPTION,), example="platformctl iam groups create team --parent my-org"),
    Spec("iam", "identities", "identity", "iam", "identity", crud("identity", "identities"),
         columns=(("NAME", "name"), ("UID", "uid"), ("DESCRIPTION", "description")),
         wide=(("EMAIL", "email"), ("ISSUER", "claimMatch.issuer"), ("SUBJECT", "claimMatch.subject"), CREATED),
         flags=(DESCRIPTION,
                Flag("--issuer", "claimMatch.issuer", "the upstream issuer whose tokens it accepts"),
                Flag("--subject", "claimMatch.subject", "the upstream token's exact subject"),
                Flag("--issuer-pattern", "claimMatch.issuerPattern", "issuer as an anchored RE2 pattern"),
                Flag("--subject-pattern", "claimMatch.subjectPattern", "subject as an anchored RE2 pattern"),
                Flag("--audience", "claimMatch.audience", "the upstream token's audience")),
         example="platformctl iam identities create ci-bot --issuer https://token.actions.githubusercontent.com "
                 "--subject repo:acme/app:ref:refs/heads/main"),
    Spec("iam", "roles", "role", "iam", "role", crud("role", "roles"),
         columns=(("NAME", "name"), ("UID", "uid"), ("DESCRIPTION", "description")),
         wide=(("CAPABILITIES", "capabilities"),),
         flags=(DESCRIPTION, Flag("--capabilities", "capabilities",
                                  "capabilities, comma-separated or repeated: repo.list or CAP_REPO_LIST", "caps",
                                  required=True)),
         example="platformctl iam roles create puller --capabilities repo.list,tag.list"),
    Spec("iam", "role-bindings", "role binding", "iam", "role_binding", crud("role_binding", "role_bindings"),
         columns=(("UID", "uid"), ("IDENTITY", "identity.name"), ("ROLE", "role.name"), ("GROUP", "group.name")),
         wide=(("IDENTITY_UID", "identityUid"), ("ROLE_UID", "roleUid"), CREATED),
         flags=(Flag("--identity", "identityUid", "the identity: uid or name", "identity", update=False,
                     required=True),
                Flag("--role", "roleUid", "the role: uid or name (built-in: viewer, editor, owner, ...)", "role",
                     required=True)),
         named=False,
         filters=(Flag("--identity", "identity", "only this identity's bindings (uid or name)", "identity"),
                  Flag("--role", "role", "only bindings of this role (uid or name)", "role")),
         example="platformctl iam role-bindings create --identity ci-bot --role viewer --parent my-org"),
    Spec("iam", "invites", "invite", "iam", "group_invite", crud("group_invite", "group_invites", "ls", "get",
                                                                "create", "rm"),
         columns=(("UID", "uid"), ("KEY_ID", "keyId"), ("ROLE", "role.name"), ("EXPIRES", "expirationTime")),
         wide=(("EMAIL", "email"), ("SINGLE_USE", "singleUse"), ("CODE", "code")),
         flags=(Flag("--role", "roleUid", "the role the invite grants: uid or name", "role", required=True),
                Flag("--ttl", "ttl", "how long it stays valid: 30m, 1h, 7d, 3600s", required=True),
                Flag("--email", "email", "only this e-mail address may accept it"),
                Flag("--single-use", "singleUse", "accepted once only", "bool")),
         named=False, example="platformctl iam invites create --role viewer --ttl 7d --parent my-org"),
    Spec("iam", "identity-providers", "identity provider", "iam", "identity_provider",
         crud("identity_provider", "identity_providers"),
         columns=(("NAME", "name"), ("UID", "uid"), ("ISSUER", "oidc.issuer")),
         wide=(("CLIENT_ID", "oidc.clientId"), ("DEFAULT_ROLE", "defaultRole"), CREATED),
         flags=(DESCRIPTION,
                Flag("--issuer", "oidc.issuer", "the OIDC issuer URL"),
                Flag("--client-id", "oidc.clientId", "the OIDC client id"),
                Flag("--client-secret", "oidc.clientSecret", "the OIDC client secret"),
                Flag("--groups-claim", "oidc.groupsClaim", "the ID token claim listing the user's groups"),
                Flag("--pkce", "oidc.pkceEnabled", "use PKCE", "bool"),
                Flag("--default-role", "defaultRole", "the role every login gets: uid or name", "role")),
         example="platformctl iam identity-providers create corp-sso --issuer https://sso.example.com "
                 "--client-id platform --pkce --default-role viewer"),
    Spec("iam", "group-mappings", "group mapping", "iam", "external_group_role_mapping",
         crud("external_group_role_mapping", "external_group_role_mappings", "ls", "get", "create", "rm"),
         columns=(("UID", "uid"), ("EXTERNAL_GROUP", "externalGroupId"), ("ROLE_UID", "roleUid"),
                  ("SCOPE", "scope")),
         wide=(("IDENTITY_PROVIDER", "identityProviderUid"), CREATED),
         flags=(Flag("--external-group", "externalGroupId", "the group id in the provider's groups claim",
                     required=True),
                Flag("--role", "roleUid", "the role it gives for the session: uid or name", "role", required=True),
                Flag("--scope", "scope", "the group where the role applies: uid or path", "group",
                     required=True)),
         named=False, parent="identity_provider",
         filters=(Flag("--identity-provider-uid", "identity_provider_uid", "only this provider's mappings",
                       "identity_provider"),),
         example="platformctl iam group-mappings create --identity-provider my-org/corp-sso "
                 "--external-group admins --role owner --scope my-org"),
]  # fmt: skip

REGISTRY = [
    Spec("registry", "repos", "repo", "registry", "repo", crud("repo", "repos"),
         columns=(("NAME", "name"), ("UID", "uid"), ("DESCRIPTION", "description")),
         wide=(("ALIASES", "aliases"), ("ACTIVE_TAGS", "activeTags"), CREATED),
         flags=(DESCRIPTION, Flag("--alias", "aliases", "another reference, name:tag (repeatable)", "list")),
         example="platformctl registry repos create nginx --parent my-org --description 'web server'"),
    Spec("registry", "tags", "tag", "registry", "tag", crud("tag", "tags", "ls", "get", "create", "rm"),
         columns=(("NAME", "name"), ("DIGEST", "digest"), ("UID", "uid")),
         wide=(("DEPRECATED", "deprecated"), ("UPDATED", "updateTime"), CREATED),
         flags=(Flag("--digest", "digest", "the manifest digest, sha256:...", required=True),),
         parent="repo", example="platformctl registry tags create latest --repo my-org/nginx --digest sha256:..."),
]  # fmt: skip

EVENTS = [
    Spec("events", "subscriptions", "subscription", "events", "subscription",
         crud("subscription", "subscriptions"),
         columns=(("UID", "uid"), ("SINK", "sink"), ("TYPES", "types")),
         wide=(("DISABLED", "disabled"), CREATED),
         flags=(Flag("--sink", "sink", "the webhook URL events are POSTed to", required=True),
                Flag("--type", "types", "only events of this type: its full name, as in Ce-Type (<prefix>.api."
                     "iam.group.created.v1), or a prefix ending in * (repeatable; default: all; on update: the "
                     "new list)", "list"),
                Flag("--disabled", "disabled", "no more deliveries (pending ones end); --enabled: deliver again "
                     "(one the server disabled after a 410 Gone, say)", "bool", create=False, off="--enabled")),
         # The server makes the signing secret (a `--secret` given would be ignored) and answers it once.
         once=(("SECRET", "secret"),),
         once_note="the subscription's signing secret (SECRET) is shown only this once: keep it to verify the "
                   "deliveries' webhook-signature",
         named=False, example="platformctl events subscriptions create --sink https://hooks.example.com/x"),
]  # fmt: skip

DELIVERIES = Spec(
    "events", "deliveries", "delivery", "events", "delivery", {"ls": "list_deliveries", "get": "get_delivery"},
    columns=(("UID", "uid"), ("EVENT_TYPE", "eventType"), ("STATE", "state"), ("ATTEMPTS", "attemptCount")),
    wide=(("EVENT_ID", "eventId"), ("SUBJECT", "subject"), ("NEXT_ATTEMPT", "nextAttemptTime"), CREATED),
    named=False,
    filters=(Flag("--event-id", "event_id", "only deliveries of this event"),
             Flag("--state", "state", "only deliveries in this state: PENDING, DELIVERED, FAILED, DISABLED")),
    example="platformctl events deliveries ls --parent <subscription uid> --state FAILED",
)  # fmt: skip

ADVISORIES = Spec(
    "", "advisories", "advisory", "vulnerabilities", "advisory", {"ls": "list_advisories", "get": "get_advisory"},
    columns=(("ADVISORY_ID", "advisoryId"), ("ARTIFACT", "artifactName"), ("COMPONENT", "componentName"),
             ("UID", "uid")),
    wide=(("ALIASES", "aliases"), ("ARTIFACT_TYPE", "artifactType"), ("UPDATED", "updateTime")),
    named=False,
    filters=(Flag("--advisory-id", "advisory_ids", "only this advisory id (repeatable)", "list"),
             Flag("--artifact", "artifact_names", "only advisories of this artifact (repeatable)", "list"),
             Flag("--alias", "aliases", "only advisories with this alias, e.g. a CVE (repeatable)", "list"),
             Flag("--query", "query", "a free-text search")),
    example="platformctl advisories ls --alias CVE-2024-3094 -o json",
)  # fmt: skip
