# Imported from etc-crontab (system crontab: a user column) by `almanac import crontab`.
# Schedules without CRON_TZ are read in America/New_York, the zone cron reads them in.

$etc_crontab_env_1 = { 'PATH' => '/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin' }

# etc-crontab:6: 17 *	* * *	root    cd / && run-parts --report /etc/cron.hourly
job { 'run-parts-cron.hourly':
  cron               => '17 * * * *',
  time_zone          => 'America/New_York',
  command            => 'cd / && run-parts --report /etc/cron.hourly',
  env                => $etc_crontab_env_1,
  run_as             => 'root',
  concurrency_policy => 'Allow',
}

# etc-crontab:7: 25 6	* * *	root	test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }
job { 'run-parts-cron.daily':
  cron               => '25 6 * * *',
  time_zone          => 'America/New_York',
  command            => 'test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }',
  env                => $etc_crontab_env_1,
  run_as             => 'root',
  concurrency_policy => 'Allow',
}

# etc-crontab:8: 47 6	* * 7	root	test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.weekly; }
job { 'run-parts-cron.weekly':
  cron               => '47 6 * * 7',
  time_zone          => 'America/New_York',
  command            => 'test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.weekly; }',
  env                => $etc_crontab_env_1,
  run_as             => 'root',
  concurrency_policy => 'Allow',
}

# etc-crontab:9: 52 6	1 * *	root	test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.monthly; }
job { 'run-parts-cron.monthly':
  cron               => '52 6 1 * *',
  time_zone          => 'America/New_York',
  command            => 'test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.monthly; }',
  env                => $etc_crontab_env_1,
  run_as             => 'root',
  concurrency_policy => 'Allow',
}

# etc-crontab:10: */5 * * * *	www-data	/usr/bin/php /var/www/app/cron.php
job { 'php-cron.php':
  cron               => '*/5 * * * *',
  time_zone          => 'America/New_York',
  command            => '/usr/bin/php /var/www/app/cron.php',
  env                => $etc_crontab_env_1,
  run_as             => 'www-data',
  concurrency_policy => 'Allow',
}
