"""Durable background work: jobs live in the store; workers lease and run them."""
