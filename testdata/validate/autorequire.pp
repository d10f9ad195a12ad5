# Automatic relationships: a file after its nearest managed ancestor, an
# exec after the file managing its cwd; never where an explicit edge
# already links the two in either direction.
file { '/srv': ensure => directory }
file { '/srv/app/data': ensure => directory }
file { '/srv/app/data/conf': ensure => file, content => 'x' }
file { '/srv/other': ensure => file, before => File['/srv'] }
exec { 'build': command => '/bin/make', cwd => '/srv/app/data' }
exec { 'elsewhere': command => '/bin/true', cwd => '/tmp' }
