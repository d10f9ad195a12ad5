notify { 'splat': * => { 'message' => 'x' } }
exec { 'a': command => '/bin/a' }
Exec <| |> { timeout => 5 }
[$p, $q] = [1, 2]
Exec <<| |>>
$s = 1 << 2
notify { 'fn': message => upcase('x') }
$t = 'x'
$t += 'y'
type MyType = String
notify { 'append': message +> 'x' }
