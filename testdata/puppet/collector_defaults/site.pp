# A collector matches values that resource defaults fill in.
Exec { path => '/usr/bin:/bin', timeout => 77 }
exec { 'defaulted': command => 'echo defaulted >> DIR/order' }
exec { 'explicit': command => 'echo explicit >> DIR/order', timeout => 77 }
exec { 'other': command => 'echo other >> DIR/order', timeout => 5 }
exec { 'listener': command => 'echo listener >> DIR/order', timeout => 10, refreshonly => true }
Exec <| timeout == 77 |> ~> Exec['listener']
