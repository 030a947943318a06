"""A client as a whole: erasure (the right to be forgotten), export, the export document's
shape, and import (the export read back).
"""
