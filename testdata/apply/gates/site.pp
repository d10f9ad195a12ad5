# Schedule gates: a resource outside its schedule is skipped, not failed, so
# its dependents still run; refresh events queued for it are dropped.
schedule { 'night': range => '1 - 4', period => 'daily' }
exec { 'backup': command => 'echo backup >> DIR/order', schedule => 'night' }
exec { 'after': command => 'echo after >> DIR/order', require => Exec['backup'] }
exec { 'trigger': command => 'echo trigger >> DIR/order' }
exec { 'reload': command => 'echo reload >> DIR/order', refreshonly => true, schedule => 'night', subscribe => Exec['trigger'] }
exec { 'hourly': command => 'echo hourly >> DIR/order', schedule => 'hourly' }
exec { 'never': command => 'echo never >> DIR/order', schedule => 'never' }
