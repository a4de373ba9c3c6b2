"""Libraries: Python and Java artifacts and their versions (ArtifactsService), from `import libraries`."""

from platform_api.libraries import artifacts, importer
from platform_api.libraries.v1 import artifacts as v1_artifacts
from platform_api.service.wiring import Domain, handlers

DOMAIN = Domain("libraries", rpcs=handlers(artifacts, v1_artifacts), importers={"libraries": importer})
