# Nightly database backup: a dump that only runs inside the maintenance
# window, a job that ships the dump off-host, and a service that reloads when
# its configuration changes.
#
#   almanac apply --noop examples/manifests/backup.pp

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

# The dump is applied whenever an apply falls inside the window; the job runs
# when its cron fires. The two share no instant, so the job cannot wait for
# the exec (a job may require only other jobs, see docs/jobs.md): it runs
# after the window has closed and ships whatever dump is there. To make the
# shipping wait for that night's dump, declare the dump as a job too, as
# daemon/nightly.pp does.
job { 'ship-backup':
  cron                      => '30 4 * * *',
  time_zone                 => 'Europe/Berlin',
  command                   => ['/usr/local/bin/ship', $backup_dir],
  concurrency_policy        => 'Forbid',
  starting_deadline_seconds => 7200,
  backoff_limit             => 3,
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
