local a = 3
print(not (a == 3), not not true, -a ^ 2, (-a) ^ 2, - -a)
