def axpy_(y, x, a):
    y[:-1].copy_(y[:-1] + a * x[:-1])       # forgets the last row
