"""OpenClaw interop: reading its state directory in both layouts, and following it live.

Nothing here ever writes to OpenClaw's files: the SQLite store is opened read-only, the legacy
files are only read.
"""
