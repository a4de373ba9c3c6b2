"""Clients built for the vendor's API, replayed against this server unchanged (README, "A client built on the
vendor's SDK..."): the Terraform provider's calls, resource by resource, from ../shared/reference/
terraform-provider-calls.md (cited as "facts N")."""
