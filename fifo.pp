notify { 'x': }
