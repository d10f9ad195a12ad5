# Resource declarations: one body, several bodies, array titles,
# per-expression defaults, virtual resources, type defaults, undef.
Exec { path => '/usr/bin:/bin', timeout => 60 }

exec { 'dump':
  command => '/usr/bin/pg_dumpall > /var/backups/all.sql',
  creates => '/var/backups/all.sql',
}

file {
  ['/var/backups', '/var/backups/db']: ensure => directory, mode => '0750';
  '/etc/agent.conf':                   ensure => file, content => "x\n";
}

exec { default: timeout => 10; 'a': command => '/bin/a'; 'b': command => '/bin/b', timeout => 5 }

# The namevar defaults to the title; undef leaves an attribute unset.
exec { '/bin/true': cwd => undef }
service { 'cron': ensure => running, status => '/bin/true' }
notify { 'plain': }
schedule { 'night': range => '1 - 4', period => 'daily', repeat => 1 }
job { 'rotate': cron => '0 3 * * *', command => ['/usr/sbin/logrotate', '/etc/logrotate.conf'], env => { 'LANG' => 'C' } }

@notify { 'banner': message => 'maintenance', tag => 'banner' }
@notify { 'never': message => 'stays virtual' }
@exec { 'by-realize': command => '/bin/r' }
realize(Exec['by-realize'])
Notify <| tag == 'banner' |>
