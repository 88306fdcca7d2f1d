// Placeholder replaced below in the same work session; prints one JSON object.
print("{}")
