"""The seam itself: the types it declares (`types`) and `Backend`, composed of one protocol per
capability (`protocols`)."""
