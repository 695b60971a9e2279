"""The SQLAlchemy Core implementation both backends share (store.py lists the modules)."""
