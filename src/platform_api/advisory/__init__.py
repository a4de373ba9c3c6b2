"""The public advisory feed (documents, vulnerability metadata) and resolved vulnerabilities per image; the
advisories importer, which writes both the groups' advisories (vulnerabilities) and the feed."""

from platform_api.advisory import documents, importer, metadata, resolved
from platform_api.service.wiring import Domain, handlers

DOMAIN = Domain("advisory", rpcs=handlers(documents, metadata, resolved), importers={"advisories": importer})
