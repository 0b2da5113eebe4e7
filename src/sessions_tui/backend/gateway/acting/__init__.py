"""What the operator does on an OpenClaw gateway: send, steer and stop, the operator's session tools,
session operations (over the socket, and the HTTP fallback's refusals), the engine's sender, and cron not carried."""
