module poolable.bench/go

go 1.27
