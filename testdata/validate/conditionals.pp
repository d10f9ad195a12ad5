# Conditionals and operators: if/elsif/else, unless, case, selectors,
# comparisons (strings case-insensitively), boolean operators, in, =~, !~,
# arithmetic.
# Checked against Puppet 7.23: 'ell' in 'Hello' and 'ELL' in 'Hello' are both true.
$os = 'RHEL'
if $os == 'debian' { $pkg = 'apt' } elsif $os in ['rhel', 'fedora'] { $pkg = 'dnf' } else { $pkg = 'unknown' }
unless $pkg == 'dnf' { notify { 'not dnf': } } else { notify { 'dnf': } }
$role = 'web-7'
case $role {
  'db', 'cache': { $kind = 'data' }
  /^web-(\d+)$/: { $kind = "web number ${1}" }
  default:       { $kind = 'other' }
}
case 'nothing' { 'x': { notify { 'never': } } }
$tls = true
$port = $tls ? { true => 443, default => 80 }
$size = 'XL' ? { /^(S|M)$/ => 'small', ['L', 'xl'] => 'large', default => 'huge' }
notify { 'results':
  message => [$pkg, $kind, $port, $size,
    1 < 2, 2 <= 2, 'b' > 'A', 3 >= 4, 1 != 2, !true, true and false, false or true,
    'ell' in 'Hello', 'b' in { 'a' => 1, 'b' => 2 }, /^h/ in ['x', 'hi'],
    'abc' =~ 'b', 'abc' !~ /z/,
    7 / 2, 7 % 3, 7.0 / 2, 2 - 5, [1, 2] + [3], [1, 2, 3] - 2, { 'a' => 1 } + { 'b' => 2 }],
}
