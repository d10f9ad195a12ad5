# A chain to a virtual resource that is never realized.
@exec { 'ghost': command => '/bin/true' }
exec { 'real': command => '/bin/true' }
Exec['real'] -> Exec['ghost']
