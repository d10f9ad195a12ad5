# Imported from user.crontab (the crontab of web) by `almanac import crontab`.
# Schedules without CRON_TZ are read in America/New_York, the zone cron reads them in.

$user_crontab_env_1 = { 'MAILTO' => 'web-team@example.com', 'PATH' => '/usr/local/bin:/usr/bin:/bin' }

# user.crontab:8: 30 2 * * 1-5    /usr/local/bin/pg-dump-all --gzip > /var/backups/db-$(date +\%F).sql.gz
job { 'pg-dump-all':
  cron               => '30 2 * * 1-5',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', '/usr/local/bin/pg-dump-all --gzip > /var/backups/db-$(date +%F).sql.gz'],
  env                => $user_crontab_env_1,
  run_as             => 'web',
  notify             => 'mailto:web-team@example.com',
  concurrency_policy => 'Allow',
}

# user.crontab:10: */15 8-18 * * mon-fri  /usr/sbin/logrotate /etc/logrotate.d/app
job { 'logrotate':
  cron               => '*/15 8-18 * * mon-fri',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', '/usr/sbin/logrotate /etc/logrotate.d/app'],
  env                => $user_crontab_env_1,
  run_as             => 'web',
  notify             => 'mailto:web-team@example.com',
  concurrency_policy => 'Allow',
}

# user.crontab:11: @hourly         /opt/app/bin/refresh-cache
job { 'refresh-cache':
  cron               => '@hourly',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', '/opt/app/bin/refresh-cache'],
  env                => $user_crontab_env_1,
  run_as             => 'web',
  notify             => 'mailto:web-team@example.com',
  concurrency_policy => 'Allow',
}

# user.crontab:12: not imported: @reboot         /opt/app/bin/warm-up

# user.crontab:14: 0 7 1 * *       /usr/bin/mail -s "monthly report" ops@example.com%Hello,%the monthly report is ready.%
job { 'mail':
  cron               => '0 7 1 * *',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', 'exec <<\'ALMANAC_STDIN\'
Hello,
the monthly report is ready.
ALMANAC_STDIN
/usr/bin/mail -s "monthly report" ops@example.com'],
  env                => $user_crontab_env_1,
  run_as             => 'web',
  notify             => 'mailto:web-team@example.com',
  concurrency_policy => 'Allow',
}

$user_crontab_env_2 = $user_crontab_env_1 + { 'APP_ENV' => 'production' }

# user.crontab:16: 5 4 * * sun     cd /srv/app && ./bin/cleanup --older-than 30d
job { 'cleanup':
  cron               => '5 4 * * sun',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', 'cd /srv/app && ./bin/cleanup --older-than 30d'],
  env                => $user_crontab_env_2,
  run_as             => 'web',
  notify             => 'mailto:web-team@example.com',
  concurrency_policy => 'Allow',
}

# user.crontab:17: not imported: 61 * * * *      /bin/never-valid
