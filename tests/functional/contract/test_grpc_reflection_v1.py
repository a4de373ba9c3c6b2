"""Server reflection v1 (`grpc.reflection.v1.ServerReflection`), next to v1alpha: grpcurl and newer clients
ask v1 first. Answered by grpcio-reflection's v1alpha servicer over the same bytes, which holds because the two
protocols' messages are the same field for field."""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2 as v1alpha

from platform_api.gen.grpc.reflection.v1 import reflection_pb2 as v1
from platform_api.gen.grpc.reflection.v1 import reflection_pb2_grpc as v1_grpc
from tests.helpers import TIMEOUT, Server


def _ask(server: Server, *requests: v1.ServerReflectionRequest) -> list[v1.ServerReflectionResponse]:
    def stream() -> Iterator[v1.ServerReflectionRequest]:
        yield from requests

    return list(v1_grpc.ServerReflectionStub(server.channel).ServerReflectionInfo(stream(), timeout=TIMEOUT))


def _files(response: v1.ServerReflectionResponse) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    protos = [
        descriptor_pb2.FileDescriptorProto.FromString(b)
        for b in response.file_descriptor_response.file_descriptor_proto
    ]
    return {p.name: p for p in protos}


def test_v1_lists_our_services(server: Server) -> None:
    [answer] = _ask(server, v1.ServerReflectionRequest(list_services=""))
    names = {s.name for s in answer.list_services_response.service}
    assert {
        "chainguard.platform.registry.v2.ReposService",
        "chainguard.platform.registry.v2beta1.ReposService",
        "chainguard.platform.iam.Groups",
        "chainguard.platform.registry.Registry",
        "chainguard.platform.registry.Vulnerabilities",
        "chainguard.platform.vulnerabilities.v1.Advisories",
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    } <= names


def test_v1_resolves_files_by_symbol_and_name(server: Server) -> None:
    by_symbol, by_name, itself, unknown = _ask(
        server,
        v1.ServerReflectionRequest(file_containing_symbol="chainguard.platform.registry.Vulnerabilities"),
        v1.ServerReflectionRequest(file_by_filename="chainguard/platform/iam/v1/group.proto"),
        v1.ServerReflectionRequest(file_containing_symbol="grpc.reflection.v1.ServerReflection"),
        v1.ServerReflectionRequest(file_containing_symbol="chainguard.platform.NoSuch"),
    )
    files = _files(by_symbol)
    vulns = files["chainguard/platform/registry/v1/vulnerabilities.proto"]
    assert vulns.package == "chainguard.platform.registry"
    assert [m.name for m in vulns.service[0].method] == [
        "ListVulnReports", "GetRawVulnReport", "ListVulnCountReports", "ListCumulativeVulnCountReports"]  # fmt: skip
    # With its dependencies, so a client can build every message from the answer alone.
    assert set(vulns.dependency) <= set(files)
    assert _files(by_name)["chainguard/platform/iam/v1/group.proto"].package == "chainguard.platform.iam"
    assert "grpc/reflection/v1/reflection.proto" in _files(itself)
    assert unknown.error_response.error_code == 5  # NOT_FOUND
    assert by_symbol.original_request.file_containing_symbol == "chainguard.platform.registry.Vulnerabilities"


def test_v1_and_v1alpha_messages_are_the_same_field_for_field() -> None:
    """What lets the v1alpha servicer answer v1 requests byte for byte."""
    ours, theirs = descriptor_pb2.FileDescriptorProto(), descriptor_pb2.FileDescriptorProto()
    v1.DESCRIPTOR.CopyToProto(ours)
    v1alpha.DESCRIPTOR.CopyToProto(theirs)
    for proto in (ours, theirs):
        proto.ClearField("name")
        proto.ClearField("package")
        proto.ClearField("options")
    assert str(ours).replace(".grpc.reflection.v1.", ".X.") == str(theirs).replace(".grpc.reflection.v1alpha.", ".X.")
