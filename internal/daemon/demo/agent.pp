# The agent-mode demo of `almanac serve --demo` (written to
# <data>/demo-manifests/site.pp at every start, where <data> is --data).
# It changes nothing outside the daemon's data directory: its file lives
# there, and its exec runs `true`. $almanac_data is set by data.pp, which
# the daemon writes beside this file.

# A narrow gate: half an hour at midday UTC, Monday to Friday. The Windows
# page draws it as five blocks; the agent wakes at each opening and applies.
# No period, since a job's gate may only say when, not how often.
schedule { 'demo-midday':
  range     => '12:00 - 12:30',
  weekday   => ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
  time_zone => 'UTC',
}

# A directory and a file in it (the file requires its directory on its own).
file { "${almanac_data}/demo-agent":
  ensure => directory,
  mode   => '0755',
}

file { "${almanac_data}/demo-agent/motd":
  ensure  => file,
  content => "Managed by the almanac demo agent.\n",
  mode    => '0644',
}

# A notify is out of sync on every apply, so it refreshes its subscriber
# every time: the report shows Exec[demo-reload] refreshed.
notify { 'demo-hello':
  message => 'almanac demo agent: hello',
  require => File["${almanac_data}/demo-agent/motd"],
  notify  => Exec['demo-reload'],
}

exec { 'demo-reload':
  command     => 'true',
  path        => ['/usr/bin', '/bin'],
  refreshonly => true,
}

# Applied only inside demo-midday: skipped as "not scheduled" by the other
# applies, and applied by the gate's own apply at 12:00 UTC on weekdays.
notify { 'demo-midday':
  message  => 'almanac demo agent: the midday window is open',
  schedule => 'demo-midday',
}

# A job gated by the same schedule: it fires at 12:05 UTC every day, runs on
# weekdays, and on weekends waits for the gate until its ten-minute starting
# deadline passes (run.missed).
job { 'demo-midday-report':
  cron                      => '5 12 * * *',
  time_zone                 => 'UTC',
  command                   => 'echo "midday report for $ALMANAC_SCHEDULED_TIME"',
  schedule                  => 'demo-midday',
  starting_deadline_seconds => 600,
}
