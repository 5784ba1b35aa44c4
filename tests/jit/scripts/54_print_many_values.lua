print(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, true, false, "end")
print("only text")
print(1e308 * 10, -1e308 * 10)
