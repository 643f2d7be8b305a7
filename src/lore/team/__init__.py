"""The team loop, composed from the layers below: proposals (remember, resume), sync,
init and connect, and the state of every registered vault."""
