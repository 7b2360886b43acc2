"""Where upstream bytes come from: HTTP, git, a mirror; digests, cache and fetch."""
