"""Shared conversations: one host runs the conversation and writes its log; guests follow the log
live and send their writes to the host (`host`, `guest`, `mirror`, `writes`, `wire`, `guests`)."""
