print(math.exp(0), math.exp(1), math.exp(-1), math.log(1), math.log(math.exp(2)), math.log10(0.001))
print(math.log(0), -math.log(0), math.exp(710), math.exp(-1000))
