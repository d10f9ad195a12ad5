# An operand that matches nothing does not break a chain: its neighbours
# are joined with the arrow to the right of the gap (PUP-1410).
exec { 'a': command => '/bin/a' }
exec { 'b': command => '/bin/b' }
exec { 'c': command => '/bin/c' }
Exec['a'] -> Notify <| tag == 'none' |> ~> Exec['b']
Exec['b'] ~> [] -> Exec['c']
