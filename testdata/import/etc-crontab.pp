# Imported from etc-crontab by `almanac import crontab`.

# etc-crontab:6: 17 *	* * *	root    cd / && run-parts --report /etc/cron.hourly
# cron ran this as user root; almanac runs it as the daemon's user
job { 'cd-6':
  cron               => '17 * * * *',
  command            => 'cd / && run-parts --report /etc/cron.hourly',
  env                => { 'PATH' => '/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin' },
  concurrency_policy => 'Allow',
}

# etc-crontab:7: 25 6	* * *	root	test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }
# cron ran this as user root; almanac runs it as the daemon's user
job { 'test-7':
  cron               => '25 6 * * *',
  command            => 'test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }',
  env                => { 'PATH' => '/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin' },
  concurrency_policy => 'Allow',
}

# etc-crontab:8: 47 6	* * 7	root	test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.weekly; }
# cron ran this as user root; almanac runs it as the daemon's user
job { 'test-8':
  cron               => '47 6 * * 7',
  command            => 'test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.weekly; }',
  env                => { 'PATH' => '/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin' },
  concurrency_policy => 'Allow',
}

# etc-crontab:9: 52 6	1 * *	root	test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.monthly; }
# cron ran this as user root; almanac runs it as the daemon's user
job { 'test-9':
  cron               => '52 6 1 * *',
  command            => 'test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.monthly; }',
  env                => { 'PATH' => '/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin' },
  concurrency_policy => 'Allow',
}

# etc-crontab:10: */5 * * * *	www-data	/usr/bin/php /var/www/app/cron.php
# cron ran this as user www-data; almanac runs it as the daemon's user
job { 'php-10':
  cron               => '*/5 * * * *',
  command            => '/usr/bin/php /var/www/app/cron.php',
  env                => { 'PATH' => '/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin' },
  concurrency_policy => 'Allow',
}
