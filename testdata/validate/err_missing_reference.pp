exec { 'm': command => '/bin/m', require => Exec['nope'] }
exec { 'n': command => '/bin/n', before => [Exec['m'], File['/nope']], notify => Service['gone'] }
exec { 'o': command => '/bin/o', subscribe => 'Exec[also-nope]', require => 'not a ref' }
Exec['m'] -> Exec['nope']
Exec['ghost'] ~> Exec['n']
Exec['m'] <- Exec['phantom']
@exec { 'virtual': command => '/bin/v' }
Exec['m'] -> Exec['virtual']
notify { 'sched': schedule => 'nosuch' }
realize(Exec['unreal'])
