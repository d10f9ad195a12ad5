foo { 'x': }
package { 'ntp': ensure => installed }
Bar { attr => 1 }
Baz <| |> -> Exec['a']
exec { 'a': command => '/bin/a' }
