# Nightly database backup: a dump that only runs inside the maintenance
# window, a job that ships the dump off-host, and a service that reloads when
# its configuration changes.

schedule { 'maintenance':
  range   => '01:00 - 04:00',
  weekday => ['Sat', 'Sun'],
}

$backup_dir = '/var/backups/db'

Exec {
  path    => '/usr/local/bin:/usr/bin:/bin',
  timeout => 3600,
}

file { ['/var/backups', $backup_dir]:
  ensure => directory,
  mode   => '0750',
}

exec { 'dump-database':
  command  => "pg_dumpall --file=${backup_dir}/all.sql",
  cwd      => $backup_dir,
  creates  => "${backup_dir}/all.sql",
  schedule => 'maintenance',
}

job { 'ship-backup':
  cron                      => '30 4 * * *',
  time_zone                 => 'Europe/Berlin',
  command                   => ['/usr/local/bin/ship', $backup_dir],
  concurrency_policy        => 'Forbid',
  starting_deadline_seconds => 7200,
  backoff_limit             => 3,
  require                   => Exec['dump-database'],
}

file { '/etc/backup-agent.conf':
  ensure  => file,
  content => "target = ${backup_dir}\n",
  notify  => Service['backup-agent'],
}

service { 'backup-agent':
  ensure  => running,
  restart => '/usr/bin/systemctl reload backup-agent',
}

notify { 'backup configured':
  message => "Backups land in ${backup_dir}",
}
