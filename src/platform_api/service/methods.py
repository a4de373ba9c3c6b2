"""An RPC of the contract as data (its HTTP rules and method options), as the transports build it from the
descriptors (api/schema.py) and hand it to the implementation's Context: events read their type and source
here, never from a transport."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import Descriptor


@dataclass(frozen=True)
class HttpRule:
    verb: str  # GET, POST, PATCH, DELETE, PUT
    template: str
    body: str  # "", "*", or a top-level request field name


@dataclass(frozen=True)
class Capped:
    """A request field on the way to a declared cap (`platformapi.annotations.max_items`)."""

    name: str  # proto name (error paths)
    json: str  # JSON name (keys of the canonical dict)
    kind: str  # "list", "map", "mask" (a FieldMask's paths) or "message" (a singular message leading to caps)
    limit: int  # the declared cap; 0 for "message" (and for an undeclared cap, which the contract test refuses)
    inner: CapPlan  # the plan of the elements, map values or message ("list"/"map": empty when they hold no caps)


class CapPlan:
    """The capped fields of one request message, built once from the descriptors (api/caps.py). A message
    with no repeated field anywhere below it has an empty plan (falsy): the transports skip it."""

    __slots__ = ("fields",)

    def __init__(self, fields: tuple[Capped, ...] = ()) -> None:
        self.fields = fields

    def __bool__(self) -> bool:
        return bool(self.fields)


NO_CAPS = CapPlan()


@dataclass
class MethodInfo:
    full_name: str  # chainguard.platform.registry.v2.ReposService.GetRepo
    grpc_path: str  # /chainguard.platform.registry.v2.ReposService/GetRepo
    service: str  # chainguard.platform.registry.v2.ReposService
    name: str  # GetRepo
    area: str  # registry
    # The implementation's name: the v2 method for its v2beta1 alias, else full_name.
    impl: str
    input: Descriptor
    output: Descriptor
    input_record: type
    output_record: type
    input_pb: Any  # generated protobuf message classes
    output_pb: Any
    rules: list[HttpRule] = field(default_factory=list)
    auth_disabled: bool = False
    capabilities: tuple[str, ...] = ()
    unscoped: bool = False
    event_type: str = ""
    event_subject: str = ""
    # Path of the request field naming the authorization scope: "uid", "parent", "repo.uid" ...
    scope_field: str = ""
    # For Update RPCs: the resource field of the request whose body keys give the inferred mask.
    mask_from_body: str = ""
    # What the scope uid names, for NOT_FOUND when it is out of the caller's reach.
    scope_resource: str = ""
    # Capability mask of `capabilities`.
    required: int = 0
    # The collection path events of this method name as their source (the v2 one for a v2beta1 alias).
    event_source: str = ""
    # The request's repeated fields with their declared caps, checked by both transports before any other work.
    caps: CapPlan = NO_CAPS
    # Where the contract's fields this server leaves out can be in the request (api/omitted.Plan; falsy: nowhere).
    omitted: Any = None


def collection_path(template: str) -> str:
    """The collection of a route: `/iam/v2/groups/{parent=**}` and `/iam/v2/groups:lookupGroup` -> `/iam/v2/groups`."""
    path = template.split("{", 1)[0]
    last = path.rsplit("/", 1)
    if ":" in last[-1]:
        path = last[0] + "/" + last[-1].split(":", 1)[0]
    return path.rstrip("/")
