# Imported by `almanac import timer`.
# OnCalendar= expressions without a zone are read in America/New_York, the zone systemd reads them in.

# apt-daily.timer, starting apt-daily.service
# Description: Daily apt download activities
# RandomizedDelaySec: systemd draws a new delay each time (unless FixedRandomDelay=yes); almanac keeps one fixed delay per job
# Persistent=true: a run missed while the daemon was down runs when it starts (no starting deadline)
# service: Daily apt download activities
# not imported: ConditionACPower=true
job { 'apt-daily':
  on_calendar        => '*-*-* 6,18:00',
  time_zone          => 'America/New_York',
  command            => '{ /usr/lib/apt/apt-helper wait-online || :; } &&
/usr/lib/apt/apt.systemd.daily update',
  randomized_delay   => 43200,
  concurrency_policy => 'Forbid',
}

# backup.timer, starting backup.service
# Description: Back up the databases
# AccuracySec=1s: systemd may fire up to that late; almanac fires on time
# RandomizedDelaySec: systemd draws a new delay each time (unless FixedRandomDelay=yes); almanac keeps one fixed delay per job
# Persistent=true: a run missed while the daemon was down runs when it starts (no starting deadline)
# service: Database backup
# not imported: Nice=10
job { 'backup':
  on_calendar        => ['Mon..Fri *-*-* 02:30:00', 'Sat,Sun *-*-* 12:00'],
  time_zone          => 'America/New_York',
  command            => '{ /usr/bin/rm -f /var/lib/backup/stale.lock || :; } &&
/usr/local/bin/dump-all --level 9 --target \'/srv/backup/db dumps\' --compress=zstd',
  env                => { 'COMPRESS' => 'zstd', 'LEVEL' => '9', 'TARGET' => '/srv/backup/db dumps' },
  cwd                => '/var/lib/backup',
  run_as             => 'backup:disk',
  timeout            => 9000,
  randomized_delay   => 900,
  concurrency_policy => 'Forbid',
}

# cache-warm.timer: not imported (see the warnings)

# fstrim.timer, starting fstrim.service
# Description: Discard unused blocks once a week
# AccuracySec=1h: systemd may fire up to that late; almanac fires on time
# RandomizedDelaySec: systemd draws a new delay each time (unless FixedRandomDelay=yes); almanac keeps one fixed delay per job
# Persistent=true: a run missed while the daemon was down runs when it starts (no starting deadline)
# service: Discard unused blocks on filesystems from /etc/fstab
# not imported: ConditionVirtualization=!container
# not imported: PrivateDevices=no
# not imported: PrivateNetwork=yes
# not imported: PrivateUsers=no
# not imported: ProtectKernelTunables=yes
# not imported: ProtectKernelModules=yes
# not imported: ProtectControlGroups=yes
# not imported: MemoryDenyWriteExecute=yes
# not imported: SystemCallFilter=@default @file-system @basic-io @system-service
job { 'fstrim':
  on_calendar        => 'weekly',
  time_zone          => 'America/New_York',
  command            => ['/sbin/fstrim', '--listed-in', '/etc/fstab:/proc/self/mountinfo', '--verbose', '--quiet-unsupported'],
  randomized_delay   => 6000,
  concurrency_policy => 'Forbid',
}

# report.timer, starting mail-report.service
job { 'report':
  on_calendar               => '*-*-01 07:00 Europe/Berlin',
  time_zone                 => 'America/New_York',
  command                   => ['/usr/bin/python3', '/opt/reports/mail-report.py', '--out', '/run/report'],
  run_as                    => 'reports',
  timeout                   => 600,
  starting_deadline_seconds => 60,
  concurrency_policy        => 'Forbid',
}

# worker@.timer: not imported (see the warnings)
