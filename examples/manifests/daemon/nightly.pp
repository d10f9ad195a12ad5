# Jobs for `almanac serve --manifests examples/manifests/daemon`.
#
# A database dump runs every night at 02:00 Berlin time. The off-site backup
# is due at the same instant, but it may only run inside the weekend
# maintenance window and only once that night's dump has succeeded. On
# weekdays its 02:00 run waits for the window; the one-hour starting
# deadline makes those runs end as missed instead of piling up until
# Saturday.

schedule { 'weekend':
  time_zone => 'Europe/Berlin',
  windows   => [{ days => ['Sat', 'Sun'], start_time => '00:00', length_minutes => 1440 }],
}

$dumps = '/var/backups/db'

Job {
  time_zone                 => 'Europe/Berlin',
  starting_deadline_seconds => 3600,
  concurrency_policy        => 'Forbid',
}

job { 'dump':
  cron    => '0 2 * * *',
  command => "pg_dumpall --file=${dumps}/all.sql",
  timeout => 3600,
}

job { 'backup':
  cron          => '0 2 * * *',
  command       => ['/usr/local/bin/ship', "${dumps}/all.sql"],
  env           => { 'SHIP_TARGET' => 'backup.example.net' },
  schedule      => 'weekend',
  require       => Job['dump'],
  backoff_limit => 2,
  failed_jobs_history_limit => 3,
}

# A heartbeat every minute, so a new daemon shows a run straight away.
job { 'manifest-heartbeat':
  cron      => '* * * * *',
  time_zone => 'UTC',
  command   => 'echo "alive at $ALMANAC_SCHEDULED_TIME"',
  starting_deadline_seconds => 30,
}
