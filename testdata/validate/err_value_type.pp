file { '/x': ensure => bogus }
file { 'relative/path': ensure => file }
file { '/y': ensure => file, mode => 644 }
file { '/l': ensure => link }
exec { 'a': command => '/bin/a', refreshonly => 'yes', timeout => 'soon', tries => 1.5, cwd => 'tmp' }
exec { 'b': command => '/bin/b', returns => ['zero'], environment => [1, 2], noop => 'maybe' }
service { 's': ensure => 'sideways' }
job { 'j': cron => '* * * * *', at => '2025-01-01T00:00:00Z', command => '/bin/j', env => 'x', backoff_limit => -1 }
job { 'k': at => 'tomorrow' }
notify { 'bad tag': tag => 'has space' }
class typed(Integer $n, Enum['a', 'b'] $e = 'c', Array[String] $l = [1]) { }
class { 'typed': n => 'one' }
