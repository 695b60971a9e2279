"""The core model shared by every surface: nodes, edges, commits, jobs and their errors."""
