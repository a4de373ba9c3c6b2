"""Libraries: Python and Java artifacts and their versions (ArtifactsService), from `import libraries`."""

from platform_api.libraries import artifacts, importer
from platform_api.service.wiring import Domain, handlers

DOMAIN = Domain("libraries", rpcs=handlers(artifacts), importers={"libraries": importer})
