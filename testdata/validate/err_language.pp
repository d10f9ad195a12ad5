$x = 1
$x = 2
notify { 'u': message => $nope }
notify { 'q': message => $nosuch::var }
$y = 1 / 0
$z = 'a' + 1
$w = 'abc' ? { 'x' => 1 }
fail('stopped here')
notify { $undefined_title_var: }
notify { '': }
include missing_class
$arr = [1, 2]
notify { 'idx': message => $arr['k'] }
$slice = $arr[0, 1]
$neg = -'x'
$cmp = 'a' < 1
$m = 5 =~ /5/
