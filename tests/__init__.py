"""The test suite; its folders mirror the packages (see each folder's ``__init__``)."""
