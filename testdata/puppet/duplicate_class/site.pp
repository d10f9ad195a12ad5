# A class included and then declared resource-like.
class web ($workers = 1) { }
include web
class { 'web': workers => 2 }
