"""The public advisory feed (documents, vulnerability metadata) and resolved vulnerabilities per image; the
advisories importer, which writes both the groups' advisories (vulnerabilities) and the feed."""

from platform_api.advisory import documents, importer, metadata, resolved
from platform_api.advisory.v1 import documents as v1_documents
from platform_api.advisory.v1 import metadata as v1_metadata
from platform_api.advisory.v1 import resolved as v1_resolved
from platform_api.service.wiring import Domain, handlers

DOMAIN = Domain(
    "advisory",
    rpcs=handlers(documents, metadata, resolved, v1_documents, v1_metadata, v1_resolved),
    importers={"advisories": importer},
)
