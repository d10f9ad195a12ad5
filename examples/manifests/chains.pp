# Ordering with chaining arrows, collectors and captured references.

@notify { 'maintenance banner':
  message => 'maintenance in progress',
  tag     => ['banner'],
}

$steps = ['drain', 'upgrade', 'undrain'].map |$step| {
  exec { "node-${step}":
    command     => "/usr/local/sbin/node-${step}",
    refreshonly => false,
  }
}

# drain -> upgrade -> undrain, in the order written.
Exec['node-drain'] -> Exec['node-upgrade'] -> Exec['node-undrain']

# The banner (realized by this collector) shows before any step; the
# collector matching nothing is bridged, so the reboot still follows.
Notify <| tag == 'banner' |> -> $steps
Exec['node-undrain'] -> Notify <| tag == 'nothing-has-this-tag' |> ~> exec { 'reboot-check':
  command     => '/usr/local/sbin/reboot-if-needed',
  refreshonly => true,
}
