"""The drafts inbox: notes checked and kept on this machine until the user proposes them.

`draft` turns what a person or an agent wrote (flags, a file, JSON, an editor) into a
note; `save` checks notes and keeps them in the inbox; `inbox` lists, reads and locks
it; `expiry` moves out drafts that grew old; `propose` proposes several as one pull
request.
"""
