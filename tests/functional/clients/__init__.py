"""Clients built for the vendor's API, replayed against this server unchanged (docs/vendor-clients.md): the
Terraform provider's calls, resource by resource, as its published Go source makes them (cited as "facts N": the
numbered facts we recorded from that source)."""
