"""Notes: the model (`model`), the file format (`parse`, `render`), ids and active status.

Import from the submodules; this package imports nothing so that `lore.note.status`
stays free of YAML on the recall path.
"""
