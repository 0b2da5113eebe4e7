"""Messaging between sessions: agent-to-agent ping-pong and announce, the send ledger, the loop
guard, the outbox and its deliveries, the audit log of refused sends, the owner's /send command."""
