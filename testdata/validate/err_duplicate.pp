exec { 'a': command => '/bin/a' }
notify { 'n': }
exec { 'a': command => '/bin/other' }
notify { ['x', 'n']: }
class c { }
class c { }
class { 'web': }
class { 'web': }
class web { }
exec { 'b': command => '/bin/b', alias => 'a' }
