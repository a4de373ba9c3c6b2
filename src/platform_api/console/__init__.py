"""The web console at /console/: a client of our own API like any other.

The server only hands out the page skeleton and the console's static files (console/static: ES modules, no
build step, nothing from another origin) under a strict Content-Security-Policy. Every value on a page comes
from the browser's own calls to the public routes with the signed-in person's token, so the console sees and
may do exactly what the API allows that person; no route here reads the database.

The session is the browser login's (`/oauth` with a page of this console as its redirect, signin/login.py): the
token and refresh token never sit in a URL. The login's last page posts them by a form to `/console/callback`,
whose answer (not cached, no Referer) holds them in an inert element that the console's code reads and removes
at once, accepting them only with the state its tab stored before the login (a forged POST from another site
signs nobody in), then sets the address to the page asked for; they live in the tab's sessionStorage. No
cookie carries a credential, so there is nothing for another site to forge (CSRF).
"""
