"""The event outbox, below every domain: the events a mutation records in its own transaction and the
deliveries it fans them out to (`outbox`), over the tables that hold events, subscriptions and deliveries
(`queries`, their one owner). The events domain (`platform_api.events`) serves subscriptions and deliveries
over the API and delivers them; every domain that mutates emits through here.
"""
