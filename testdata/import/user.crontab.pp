# Imported from user.crontab (the crontab of web) by `almanac import crontab`.

# user.crontab:8: 30 2 * * 1-5    /usr/local/bin/pg-dump-all --gzip > /var/backups/db-$(date +\%F).sql.gz
# MAILTO=web-team@example.com: almanac does not mail output; see `almanac logs pg-dump-all-8`
job { 'pg-dump-all-8':
  cron               => '30 2 * * 1-5',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', '/usr/local/bin/pg-dump-all --gzip > /var/backups/db-$(date +%F).sql.gz'],
  env                => { 'PATH' => '/usr/local/bin:/usr/bin:/bin' },
  concurrency_policy => 'Allow',
}

# user.crontab:10: */15 8-18 * * mon-fri  /usr/sbin/logrotate /etc/logrotate.d/app
# MAILTO=web-team@example.com: almanac does not mail output; see `almanac logs logrotate-10`
job { 'logrotate-10':
  cron               => '*/15 8-18 * * mon-fri',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', '/usr/sbin/logrotate /etc/logrotate.d/app'],
  env                => { 'PATH' => '/usr/local/bin:/usr/bin:/bin' },
  concurrency_policy => 'Allow',
}

# user.crontab:11: @hourly         /opt/app/bin/refresh-cache
# MAILTO=web-team@example.com: almanac does not mail output; see `almanac logs refresh-cache-11`
job { 'refresh-cache-11':
  cron               => '@hourly',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', '/opt/app/bin/refresh-cache'],
  env                => { 'PATH' => '/usr/local/bin:/usr/bin:/bin' },
  concurrency_policy => 'Allow',
}

# user.crontab:12: not imported: @reboot         /opt/app/bin/warm-up

# user.crontab:14: 0 7 1 * *       /usr/bin/mail -s "monthly report" ops@example.com%Hello,%the monthly report is ready.%
# MAILTO=web-team@example.com: almanac does not mail output; see `almanac logs mail-14`
job { 'mail-14':
  cron               => '0 7 1 * *',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', '/usr/bin/mail -s "monthly report" ops@example.com <<\'ALMANAC_STDIN\'
Hello,
the monthly report is ready.
ALMANAC_STDIN'],
  env                => { 'PATH' => '/usr/local/bin:/usr/bin:/bin' },
  concurrency_policy => 'Allow',
}

# user.crontab:16: 5 4 * * sun     cd /srv/app && ./bin/cleanup --older-than 30d
# MAILTO=web-team@example.com: almanac does not mail output; see `almanac logs cd-16`
job { 'cd-16':
  cron               => '5 4 * * sun',
  time_zone          => 'Europe/Berlin',
  command            => ['/bin/bash', '-c', 'cd /srv/app && ./bin/cleanup --older-than 30d'],
  env                => { 'APP_ENV' => 'production', 'PATH' => '/usr/local/bin:/usr/bin:/bin' },
  concurrency_policy => 'Allow',
}

# user.crontab:17: not imported: 61 * * * *      /bin/never-valid
