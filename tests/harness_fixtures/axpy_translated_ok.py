def axpy_(y, x, a):
    y.copy_(y + a * x)
