foo { 'x': }
ssh_authorized_key { 'ops': ensure => present }
Bar { attr => 1 }
Baz <| |> -> Exec['a']
exec { 'a': command => '/bin/a' }
