print(2 ^ 1023 * 2, -(2 ^ 1023) * 2, 5e-324, 5e-324 / 2)
print(math.floor(-0.5), math.ceil(-0.5), 1e15 + 0.5, 2 ^ 63)
