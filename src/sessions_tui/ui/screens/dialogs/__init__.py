"""The boxes the main screen asks in: confirmations (stop, kill, reset, delete, bulk), the forms
(new session, rename, model, steer, export) and the act-as picker."""
